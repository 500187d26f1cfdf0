#version 450
layout(local_size_x = 4) in;
layout(std430, binding = 0) buffer M { mat3 a; mat2x4 b; vec4 outv[8]; mat3 stored; };
layout(std140, binding = 1) uniform U { mat4 u; };
void main() {
  uint i = gl_LocalInvocationIndex;
  vec3 v = vec3(float(i), 1.0, 2.0);
  vec3 av = a * v;
  vec3 va = v * a;
  mat3 aa = a * transpose(a);
  mat2x4 bs = b * 2.0;
  vec4 uv = u * vec4(1.0, float(i), 0.0, 1.0);
  mat3 op = outerProduct(v, vec3(1.0, 2.0, 3.0));
  if (i == 0u) {
    outv[0] = vec4(av, 0.0);
    outv[1] = vec4(va, 0.0);
    outv[2] = vec4(aa[1], 0.0);
    outv[3] = bs[1];
    outv[4] = vec4(op[2], 0.0);
    stored = a * 3.0;
  }
  if (i == 3u) { outv[5] = uv; outv[6] = vec4(a[2], b[0].w); }
}
