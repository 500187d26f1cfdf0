/* [config]
 * expect_result: fail
 * glsl_version: 3.10 es
 * [end config]
 *
 * conform case opengl_es_3_1/shared-no-initializer
 * An ESSL 3.10 compute shader may not initialize a shared variable (OpenGL ES Shading Language 3.10, "Shared Variables": variables declared shared may not have initializers, the rule of ARB_compute_shader's GLSL section 4.3.7): the compile fails in an OpenGL ES 3.1 context.
 * 
 * ARBCS-GLSL-SHARED-NO-INITIALIZER:
 * ARB_compute_shader, GLSL Section 4.3.7 (Shared): A shared variable may not have an
 * initializer
 * 
 * Exported by conform 0.1.0 (`conform export piglit`); the expected values are the case's,
 * derived from the clauses above.
 */
#version 310 es
layout(local_size_x = 1) in;
shared uint s = 0u;
layout(std430, binding = 0) buffer B { uint v; };
void main() { v = s; }
