#version 450
#extension GL_EXT_shader_atomic_float : require
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer Out { uint o[]; };
layout(std430, binding = 1) buffer F { float fsum; double dsum; float fo[]; };
shared float sh[64];
shared float total;
struct S { uint a; float b; };
uint tri(uint n) { uint s = 0u; for (uint k = 0u; k < n; k++) { if (k == 5u) continue; if (k > 40u) break; s += k; } return s; }
void bump(inout S s, uint by) { s.a += by; s.b += float(by); }
void main() {
  uint i = gl_GlobalInvocationID.x;
  uint l = gl_LocalInvocationID.x;
  if (l == 0u) total = 0.0;
  sh[l] = float(l);
  barrier();
  float prev = atomicAdd(total, sh[63u - l]);
  S s = S(i, 0.5);
  bump(s, 3u);
  uint w = 0u;
  int j = int(i);
  while (j > 0) { j -= 7; w++; }
  uint sw = 0u;
  switch (i % 4u) {
    case 0u: sw = 10u; break;
    case 1u: if (i > 32u) { sw = 20u; break; } sw = 21u; break;
    case 2u:
    default: sw = 30u;
  }
  barrier();
  atomicAdd(fsum, 0.5);
  atomicAdd(dsum, 0.25lf);
  o[i] = tri(i) + 1000u * w + 100000u * sw + uint(s.b) * 10000000u;
  if (l == 0u) fo[gl_WorkGroupID.x] = total;
}
