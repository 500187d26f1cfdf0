/* [config]
 * expect_result: fail
 * glsl_version: 4.30
 * [end config]
 *
 * conform case arb_compute_shader/glsl-no-user-input-block
 * A compute shader declaring a user-defined input block must fail to compile: compute shaders do not permit user-defined inputs, blocks included.
 * 
 * ARBCS-GLSL-NO-USER-INOUT:
 * ARB_compute_shader, GLSL Sections 4.3.4 and 4.3.6: A compute shader may declare no
 * user-defined input or output variables (nor redeclare built-in inputs)
 * 
 * Exported by conform 0.1.0 (`conform export piglit`); the expected values are the case's,
 * derived from the clauses above.
 * Checks of the case piglit cannot state, left out of this test:
 * - the compile log pattern `input|in\b|block|compute|interface` (glslparsertest checks only that compiling fails)
 */
#version 430
layout(local_size_x = 1) in;
in Extra { uint a; } extra;
layout(std430, binding = 0) buffer Out { uint v[]; };
void main() { v[0] = extra.a; }
