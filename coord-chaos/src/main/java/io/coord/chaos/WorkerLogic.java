package io.coord.chaos;

/**
 * The worker side of a scenario: runs in a child JVM ({@link ChaosWorker}) until the controller
 * sends {@code exit} (or closes stdin). Talks to the controller only through
 * {@link WorkerContext#io()}, one line per message.
 */
@FunctionalInterface
public interface WorkerLogic {
    void run(WorkerContext context) throws InterruptedException;
}
