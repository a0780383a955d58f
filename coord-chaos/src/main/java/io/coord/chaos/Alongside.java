package io.coord.chaos;

import io.coord.test.Awaits;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs a scenario's control next to its main run, on their own contexts (namespaces, workers,
 * fault runners), so the pair fits the CI tier's time budget: the control's schedule is short and
 * would otherwise add its faults to the main run's. Their workers start one run after the other, so
 * that twice as many JVMs never compete for the CPU while they connect.
 */
final class Alongside {
    /** A run in two phases: start its workers, then run its workload and faults and check. */
    interface Round {
        void start() throws InterruptedException;

        ChaosResult finish() throws InterruptedException;
    }

    private Alongside() {
    }

    /** A main run without its control (a run with controls switched off): its result alone. */
    static List<ChaosResult> alone(Round main) throws InterruptedException {
        main.start();
        return List.of(main.finish());
    }

    /** Starts both, then finishes both, {@code control} on a thread of its own; returns main's result, then control's. */
    static List<ChaosResult> run(Round main, Round control) throws InterruptedException {
        main.start();
        control.start();
        AtomicReference<ChaosResult> controlResult = new AtomicReference<>();
        AtomicReference<Throwable> controlError = new AtomicReference<>();
        Thread t = new Thread(() -> {
            try {
                controlResult.set(control.finish());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                controlError.set(e);
            } catch (RuntimeException | AssertionError e) {
                controlError.set(e);
            }
        }, "chaos-control");
        t.setDaemon(true);
        t.start();
        ChaosResult mainResult;
        try {
            mainResult = main.finish();
        } finally {
            // every wait of a round is bounded, so this one ends well before its own bound
            t.join(Awaits.scaled(Duration.ofMinutes(15)).toMillis());
        }
        if (t.isAlive()) {
            throw new IllegalStateException("the control run did not end within 15 minutes");
        }
        if (controlError.get() != null) {
            throw new IllegalStateException("the control run failed", controlError.get());
        }
        return List.of(mainResult, controlResult.get());
    }
}
