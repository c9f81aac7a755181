/* pl_hello_static.c — a static binary (linked -static): the preload cannot see it. */
#include <stdio.h>
int main(void) { puts("hello"); return 0; }
