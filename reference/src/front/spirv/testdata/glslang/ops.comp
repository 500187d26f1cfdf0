#version 450
layout(local_size_x = 32) in;
layout(std430, binding = 0) buffer Out { uint o[]; };
layout(std430, binding = 1) buffer Cnt { uint add; int mn; int mx; uint andv; uint orv; uint xorv; uint exch; uint cas; uint dec; };
layout(std140, binding = 2) uniform Params { uvec4 k; float scale; };
shared uint sh_count;
uint g_private = 7u;
uint collatz(uint n) { uint steps = 0u; do { n = (n % 2u == 0u) ? n / 2u : 3u * n + 1u; steps++; } while (n != 1u && steps < 1000u); return steps; }
void main() {
  uint i = gl_LocalInvocationIndex;
  if (i == 0u) sh_count = 0u;
  barrier();
  atomicAdd(sh_count, 1u);
  atomicAdd(add, k.x);
  atomicMin(mn, int(i) - 10);
  atomicMax(mx, int(i) * 3);
  atomicAnd(andv, ~(1u << i));
  atomicOr(orv, 1u << (i % 16u));
  atomicXor(xorv, i);
  atomicExchange(exch, 5u);
  atomicCompSwap(cas, i, i + 1u);
  atomicAdd(dec, uint(-1));
  uint nest = 0u;
  for (uint a = 0u; a < 4u; a++) { for (uint b = 0u; b < 4u; b++) { if (b == a) continue; if (a + b > 5u) break; nest += a * 10u + b; } }
  uvec3 v = uvec3(i, i + 1u, i + 2u);
  uint d = v.x * v.z + v.y;
  vec2 f = vec2(float(i) * scale, 2.0);
  uint fb = uint(dot(f, f.yx));
  uint bits = bitfieldExtract(i * 0x1234u, 4, 8) + uint(findMSB(i + 1u)) * 1000u + uint(bitCount(i)) * 100000u;
  barrier();
  g_private += i;
  bool anyb = any(lessThan(v, uvec3(3u)));
  o[i * 8u + 0u] = collatz(i + 1u);
  o[i * 8u + 1u] = nest;
  o[i * 8u + 2u] = d;
  o[i * 8u + 3u] = fb;
  o[i * 8u + 4u] = bits;
  o[i * 8u + 5u] = g_private;
  o[i * 8u + 6u] = anyb ? 1u : 0u;
  o[i * 8u + 7u] = sh_count + k.y;
}
