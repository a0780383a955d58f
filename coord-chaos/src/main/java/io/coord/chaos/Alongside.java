package io.coord.chaos;

import io.coord.test.Awaits;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs a scenario's control next to its main run, on their own contexts (namespaces, workers,
 * fault runners), so the pair fits the CI tier's time budget: the control's schedule is short and
 * would otherwise add its JVM start-up and its faults to the main run's.
 */
final class Alongside {
    private Alongside() {
    }

    /** Runs both, {@code control} on a thread of its own; returns main's result, then control's. */
    static List<ChaosResult> run(Callable<ChaosResult> main, Callable<ChaosResult> control) throws InterruptedException {
        AtomicReference<ChaosResult> controlResult = new AtomicReference<>();
        AtomicReference<Throwable> controlError = new AtomicReference<>();
        Thread t = new Thread(() -> {
            try {
                controlResult.set(control.call());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                controlError.set(e);
            } catch (Exception | AssertionError e) {
                controlError.set(e);
            }
        }, "chaos-control");
        t.setDaemon(true);
        t.start();
        ChaosResult mainResult;
        try {
            mainResult = call(main);
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

    private static ChaosResult call(Callable<ChaosResult> c) throws InterruptedException {
        try {
            return c.call();
        } catch (InterruptedException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
