// Found only through -I tests/data/nvflags/inc.
#define TPB 64
