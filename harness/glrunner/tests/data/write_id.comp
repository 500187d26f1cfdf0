#version 450
layout(local_size_x = 4) in;
layout(constant_id = 0) const uint ADD = 0u;
layout(std430, binding = 0) buffer Out { uint v[]; } o;
void main() { o.v[gl_GlobalInvocationID.x] = gl_GlobalInvocationID.x + ADD; }
