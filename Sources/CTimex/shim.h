// adjtimex(2) and its constants (TIME_ERROR, STA_UNSYNC), which Glibc's Swift module leaves out.
// The header itself, not a copy of its declarations.
#include <sys/timex.h>
