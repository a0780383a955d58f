package io.coord.cli.demo;

/** A step of the demo's script that did not happen in its time (or a worker that broke): ends the run with exit code 1. */
final class DemoFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    DemoFailure(String message) {
        super(message);
    }
}
