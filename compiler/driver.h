/* driver.h: the driver's pieces shared by main.c, backend.c and testrun.c. */
#ifndef BRINE_DRIVER_H
#define BRINE_DRIVER_H
#include "brine.h"
#endif
