/* STUB — to be replaced by issue 2/8 (audit writer). */
#include "audit.h"
