/**
 * {@code coord doctor}: one read-only pass over a namespace that reports findings (see
 * {@link io.coord.cli.doctor.Finding}), shared with the web console.
 */
package io.coord.cli.doctor;
