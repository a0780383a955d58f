package io.coord.queue;

/** A test payload. */
record Job(String name, int n) {
}
