// Block dispatch: how fast an SM starts its next block. Each block only reads the SM
// clock at its first and last instruction, so the per-SM span over many blocks measures
// the dispatch path, not the work.
//
// * latency: one resident block per SM (dynamic shared memory padding, verified with the
//   occupancy API): cycles from one block's start to the next block's start on that SM,
//   i.e. the block's own few instructions plus the exit-to-next-start latency;
// * interval at B resident blocks: the same span divided by the blocks the SM ran, the
//   dispatch throughput once B slots are always refilled.
#include "common.cuh"

__global__ void k_launch(SmTimes t) {
  long long t0 = clock64();
  long long t1 = clock64();
  sm_record(t, t0, t1);
}

// Dynamic shared memory that leaves room for exactly `b` blocks of `threads` threads; -1
// when no padding gives exactly b.
static long smem_for(int b, int threads) {
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  CK(cudaFuncSetAttribute(k_launch, cudaFuncAttributeMaxDynamicSharedMemorySize,
                          (int)p.sharedMemPerBlockOptin));
  int free_occ = blocks_per_sm(k_launch, threads, 0);
  if (b == free_occ) return 0;
  if (b > free_occ) return -1;
  long per = (long)p.sharedMemPerMultiprocessor / b - (long)p.reservedSharedMemPerBlock;
  for (long s = std::min(per, (long)p.sharedMemPerBlockOptin); s > 0; s -= 128) {
    int n = blocks_per_sm(k_launch, threads, (size_t)s);
    if (n == b) return s;
    if (n > b) return -1;
  }
  return -1;
}

void run_launch() {
  const int waves = 200;
  for (int threads : {32, 64, 256, 1024}) {
    int free_occ = blocks_per_sm(k_launch, threads, 0);
    for (int b : {1, 2, 4, 8, 16, 32}) {
      if (b > free_occ) break;
      long smem = smem_for(b, threads);
      if (smem < 0) continue;
      int grid = g.sms * b * waves;
      auto run = [&]() {
        sm_reset();
        k_launch<<<grid, threads, (size_t)smem>>>(g.st);
        return sm_fetch();
      };
      run();
      SmResult r = run();
      std::vector<double> per;
      for (int s = 0; s < g.sms; ++s)
        if (r.blocks[s] > (unsigned)b) per.push_back(r.cycles[s] / double(r.blocks[s] - b));
      row("launch", "interval", "threads=" + std::to_string(threads) + ";blocks_per_sm=" +
          std::to_string(b), median(per), "cycles/block/SM", threads / 32 * b, waves * b,
          "dyn smem " + std::to_string(smem) + " B; span of block starts / blocks, median over SMs");
    }
  }
}
