// Given with -include tests/data/nvflags/pre.h.
#define PRE 3
