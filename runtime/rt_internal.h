/* rt_internal.h: what the runtime's own .c files share and programs never see. */
#ifndef BRINE_RT_INTERNAL_H
#define BRINE_RT_INTERNAL_H
#include "brine_rt.h"
#endif
