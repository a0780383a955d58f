package io.coord.chaos;

import io.coord.CoordClient;
import java.util.List;

/**
 * What a worker-side scenario gets: its name (unique in the run), its client (connected through
 * the worker's proxy, session timeout as requested), the line protocol to the controller, and the
 * scenario's extra arguments.
 */
public record WorkerContext(String name, CoordClient client, WorkerIo io, List<String> args) {
    public WorkerContext {
        args = List.copyOf(args);
    }

    /** Argument {@code i}, or an error naming what is missing. */
    public String arg(int i) {
        if (i >= args.size()) {
            throw new IllegalArgumentException("worker " + name + " needs argument " + i + ", got " + args);
        }
        return args.get(i);
    }
}
