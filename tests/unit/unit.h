/* unit — includes every cmocka test needs, in the order cmocka requires. */
#ifndef MW_UNIT_H
#define MW_UNIT_H
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#endif
