// bfs_frontier.cu
//
// Exercises: level-synchronous BFS on a CSR graph.
//   bfs_expand_frontier - queue-based: each thread takes a vertex from the
//       input frontier, walks its adjacency list (data-dependent trip
//       count), claims unvisited neighbours with atomicCAS on the level
//       array and appends them to the output frontier with atomicAdd on a
//       global counter (queue index).
//   bfs_topdown_mask   - Rodinia-style mask-based BFS: boolean masks,
//       `*done = false` flag write, nested divergent conditions.
// Analyses targeted: indirect addressing (adj[row_ptr[v] + k]), atomics
// returning values used as addresses, divergent nested loops, global flags.

extern "C" __global__ void bfs_expand_frontier(const int* __restrict__ row_ptr,
                                               const int* __restrict__ adj,
                                               const int* __restrict__ in_frontier, int in_size,
                                               int* out_frontier, int* out_size, int* level,
                                               int cur_level) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= in_size) return;
  int v = in_frontier[tid];
  int begin = row_ptr[v], end = row_ptr[v + 1];
  for (int e = begin; e < end; ++e) {
    int u = adj[e];
    if (level[u] != -1) continue;  // cheap pre-check
    if (atomicCAS(&level[u], -1, cur_level + 1) == -1) {
      int pos = atomicAdd(out_size, 1);
      out_frontier[pos] = u;
    }
  }
}

extern "C" __global__ void bfs_topdown_mask(const int* row_ptr, const int* adj, bool* mask,
                                            bool* updating, const bool* visited, int* cost,
                                            int nverts) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid < nverts && mask[tid]) {
    mask[tid] = false;
    for (int i = row_ptr[tid]; i < row_ptr[tid + 1]; i++) {
      int id = adj[i];
      if (!visited[id]) {
        cost[id] = cost[tid] + 1;
        updating[id] = true;
      }
    }
  }
}

extern "C" __global__ void bfs_commit(bool* mask, bool* updating, bool* visited, bool* done,
                                      int nverts) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid < nverts && updating[tid]) {
    mask[tid] = true;
    visited[tid] = true;
    *done = false;
    updating[tid] = false;
  }
}
