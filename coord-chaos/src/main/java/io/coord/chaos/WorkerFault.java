package io.coord.chaos;

import io.coord.test.History;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * A fault window aimed at one worker JVM, as the discovery and membership checkers read it back
 * from the history: the window names {@code "<kind> <worker>"} that {@link FaultRunner} gives its
 * pauses and cut-offs, and those scenarios' hooks their kills ({@link #killAndReplace}) and freezes.
 */
record WorkerFault(String worker, Type type, long startNanos, long endNanos) {
    enum Type {
        /** kill -9: the worker is gone for good. */
        KILL,
        /** SIGSTOP past the session timeout. */
        PAUSE,
        /** proxy refusing connections for a moment (the session survives). */
        CUT,
        /** proxy black-holing past the session timeout. */
        FREEZE
    }

    /** Every window of {@code history} aimed at one worker. */
    static List<WorkerFault> of(History history) {
        List<WorkerFault> out = new ArrayList<>();
        for (History.Window w : history.windows()) {
            String[] p = w.name().split(" ");
            Type type = switch (p[0]) {
                case "kill" -> Type.KILL;
                case "pause" -> Type.PAUSE;
                case "cut" -> Type.CUT;
                case "freeze" -> Type.FREEZE;
                default -> null;
            };
            if (type != null && p.length == 2) {
                out.add(new WorkerFault(p[1], type, w.startNanos(), w.endNanos()));
            }
        }
        return out;
    }

    /** The running worker {@code pick} points at (alive, not paused), if any. */
    static Optional<WorkerLink> pick(ChaosContext ctx, int pick) {
        List<WorkerLink> live = ctx.workers().stream().filter(w -> w.isAlive() && !w.isPaused()).toList();
        return live.isEmpty() ? Optional.empty() : Optional.of(live.get(pick % live.size()));
    }

    /**
     * F13 on {@code victim} in a {@code kill} window: kill -9, then a new worker of {@code kind}
     * (arguments {@code args}) starts in its place and is handed to {@code started}.
     */
    static void killAndReplace(ChaosContext ctx, WorkerLink victim, String kind, Consumer<WorkerLink> started, String... args)
            throws InterruptedException {
        try (History.FaultWindow window = ctx.history().fault("kill " + victim.name())) {
            victim.kill9();
            ctx.startWorkers(kind, 1, args).forEach(started);
        }
    }
}
