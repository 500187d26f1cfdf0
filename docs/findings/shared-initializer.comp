/* [config]
 * expect_result: fail
 * glsl_version: 4.30
 * [end config]
 *
 * conform case arb_compute_shader/glsl-shared-initializer
 * A shared variable with an initializer (shared uint s = 0u;) must fail to compile: variables declared as shared may not have initializers (GLSL 4.3.7 additions).
 * 
 * ARBCS-GLSL-SHARED-NO-INITIALIZER:
 * ARB_compute_shader, GLSL Section 4.3.7 (Shared): A shared variable may not have an
 * initializer
 * 
 * Exported by conform 0.1.0 (`conform export piglit`); the expected values are the case's,
 * derived from the clauses above.
 * Checks of the case piglit cannot state, left out of this test:
 * - the compile log pattern `shared|initiali` (glslparsertest checks only that compiling fails)
 */
#version 430
layout(local_size_x = 1) in;
shared uint s = 0u;
layout(std430, binding = 0) buffer Out { uint v[]; };
void main() { v[0] = s; }
