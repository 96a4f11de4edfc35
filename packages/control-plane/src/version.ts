/** The control plane API's version (the real service's OpenAPI `info.version`). */
export const CONTROL_PLANE_VERSION = "0.1.0";
