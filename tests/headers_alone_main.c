/* Linked with one generated translation unit per public header, each of which
 * includes only that header (CMakeLists.txt): building this test is the check
 * that every header compiles on its own. Running it checks nothing more. */
int main(void) { return 0; }
