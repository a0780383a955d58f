package io.coord.spring.boot;

import io.coord.Codec;
import io.coord.CoordClient;
import io.coord.queue.QueueOptions;
import io.coord.queue.TaskClaim;
import io.coord.queue.TaskQueue;
import io.coord.queue.TaskWorker;
import java.lang.reflect.InvocationTargetException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * The {@code TaskWorker}s of the {@link CoordTaskHandler @CoordTaskHandler} methods: started when
 * the context has refreshed (a lifecycle bean), stopped when it closes, draining, before any bean
 * is destroyed and so before the client closes. Stops after the discovery registration (a later
 * phase stops first) so no caller is sent here while the workers drain.
 */
final class CoordTaskWorkers implements SmartLifecycle {
    private static final Logger LOG = LoggerFactory.getLogger(CoordTaskWorkers.class);

    private final CoordClient client;
    private final CoordTaskHandlerPostProcessor handlers;
    private final Duration grace;
    private final List<TaskQueue<?>> queues = new ArrayList<>();
    private final List<TaskWorker> workers = new ArrayList<>();
    private boolean running;

    CoordTaskWorkers(CoordClient client, CoordTaskHandlerPostProcessor handlers, Duration grace) {
        this.client = client;
        this.handlers = handlers;
        this.grace = grace;
    }

    @Override
    public synchronized void start() {
        for (TaskHandlerSpec spec : handlers.handlers()) {
            start(spec, spec.payloadType());
        }
        running = true;
    }

    private <T> void start(TaskHandlerSpec spec, Class<T> type) {
        TaskQueue<T> queue = TaskQueue.open(client, spec.queue(), Codec.json(type),
                QueueOptions.builder().shutdownGrace(grace).build());
        queues.add(queue);
        workers.add(queue.work(spec.concurrency(), claim -> invoke(spec, claim)));
        LOG.info("@CoordTaskHandler {} works /queues/{} with {} consumers", spec.where(), spec.queue(), spec.concurrency());
    }

    private static void invoke(TaskHandlerSpec spec, TaskClaim<?> claim) throws Exception {
        try {
            spec.method().invoke(spec.bean(), spec.takesClaim() ? claim : claim.payload());
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof Exception cause) {
                throw cause; // the handler's own exception fails the task, with its message as the reason
            }
            throw e;
        }
    }

    /**
     * Drains every worker at once, so that all stop claiming together and the whole stop takes
     * at most one grace period (not one per handler).
     */
    @Override
    public synchronized void stop() {
        List<Thread> drains = new ArrayList<>();
        for (TaskWorker worker : workers) {
            Thread drain = new Thread(() -> drain(worker), "coord-task-drain");
            drain.start();
            drains.add(drain);
        }
        try {
            for (Thread drain : drains) {
                drain.join(grace.toMillis() + 10_000); // shutdown(grace) interrupts the handlers after the grace; a handler deaf to it is not waited for forever
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // the drains go on; the queues close below
        } finally {
            queues.forEach(TaskQueue::close);
            workers.clear();
            queues.clear();
            running = false;
        }
    }

    private void drain(TaskWorker worker) {
        try {
            if (!worker.shutdown(grace)) {
                LOG.warn("a task handler was still running after coord.tasks.shutdown-grace ({}): interrupted, its task released", grace);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // the worker is stopped anyway
        }
    }

    @Override
    public synchronized boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return DEFAULT_PHASE - 1;
    }
}
