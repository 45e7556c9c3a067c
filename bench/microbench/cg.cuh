// ld_cg / st_cg: one float4 per thread, cached in L2 only (.cg), so that a stream measures
// L2 and DRAM rather than L1. Shared by the standalone bandwidth benchmarks.
#pragma once

__device__ __forceinline__ void ld_cg(const float4* p, float4& v) {
  asm volatile("ld.global.cg.v4.f32 {%0,%1,%2,%3}, [%4];"
               : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
               : "l"(p));
}
__device__ __forceinline__ void st_cg(float4* p, float4 v) {
  asm volatile("st.global.cg.v4.f32 [%0], {%1,%2,%3,%4};" ::"l"(p), "f"(v.x), "f"(v.y),
               "f"(v.z), "f"(v.w)
               : "memory");
}
