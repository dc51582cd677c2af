/* ir.h: the IR between lowering and the emitters (owned by lower.c/ir.c/emit_c.c). */
#ifndef BRINE_IR_H
#define BRINE_IR_H
#include "brine.h"
#endif
