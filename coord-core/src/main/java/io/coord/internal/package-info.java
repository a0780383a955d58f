/**
 * Not API. Helpers shared by Coord's recipe modules (the lease state machine, listener dispatch,
 * error translation, node-lease plumbing). Public only so that recipe modules in other packages
 * can use them; anything here may change without notice.
 */
package io.coord.internal;
