#version 450
#extension GL_EXT_shader_atomic_float : require
layout(local_size_x = 8) in;
layout(std430, binding = 0) buffer Acc { float sum; } acc;
void main() { atomicAdd(acc.sum, 0.5); }
