/** Naming recipes (placeholder). */
package io.coord.naming;
