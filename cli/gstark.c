#include <stdio.h>
int main(void) { puts("gstark"); return 0; }
