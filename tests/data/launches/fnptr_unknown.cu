// Launches through function pointers of which some target is not known:
// no shape, and the reason.
__global__ void only_ptr(float *a) { a[threadIdx.x] = 1.0f; }
__global__ void direct(float *a) { a[threadIdx.x] = 2.0f; }

typedef void (*op)(float *);
extern op from_elsewhere;
op lookup(int which);
void keep(op *slot);

// exported, and no code of this file calls it
void launch_any(op k, float *d) { k<<<1, 32>>>(d); }
// called with a shape known at one call only
void run(op k, int n, float *d) { k<<<1, n>>>(d); }
// called, but its address is kept too: not every call is in sight
void twice(op k, float *d) { k<<<1, 96>>>(d); }
static void (*twice_ptr)(op, float *) = twice;

void host(float *d, op *slots, int n) {
  from_elsewhere<<<1, 64>>>(d);
  op a = *slots;
  a<<<1, 64>>>(d);
  op b = lookup(n);
  b<<<1, 64>>>(d);
  op c = only_ptr;
  keep(&c);
  c<<<1, 64>>>(d);
  op e = direct;
  op &alias = e;
  e<<<1, 64>>>(d);
  direct<<<1, 32>>>(d);
  run(direct, 128, d);
  run(direct, n, d);
  twice(direct, d);
  twice_ptr(only_ptr, d);
}

// also called from a class template's member, code the scan does not walk
void in_template(op k, float *d) { k<<<1, 32>>>(d); }
template <class T> struct Runner { void go(float *d) { in_template(direct, d); } };
void host2(float *d) { in_template(direct, d); Runner<int>().go(d); }
