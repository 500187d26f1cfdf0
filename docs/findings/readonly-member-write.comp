/* [config]
 * expect_result: fail
 * glsl_version: 4.30
 * [end config]
 *
 * conform case glsl/block-readonly-member-write
 * A readonly buffer block member may only be read (GLSL 4.60 §4.10, Memory Qualifiers; the compiler rejects a write to it as to any read-only variable, §5.8): assigning to inst.a, declared readonly in an instanced block whose other member is writable, is a compile-time error, as it is for the same member of an unnamed block.
 * 
 * GLSL-BLOCK-MEMBER-READONLY:
 * GLSL 4.60, Section 4.10 (Memory Qualifiers): readonly on a buffer block member makes that
 * member read-only (writing it is a compile-time error) and leaves the block's other members
 * writable
 * 
 * Exported by conform 0.1.0 (`conform export piglit`); the expected values are the case's,
 * derived from the clauses above.
 */
#version 430
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer B { readonly uint a; uint b; } inst;
void main() { inst.a = inst.b; }
