package io.coord.queue;

import io.coord.TooManyChildrenException;

/**
 * The queue holds as many tasks as its depth cap ({@link QueueOptions#depthCap()}) allows, so the
 * enqueue was refused and nothing was added (bad-input row 13). The cap keeps the task listing far
 * below ZooKeeper's 1 MB reply limit, past which reading the queue fails with ConnectionLoss.
 * Retryable once consumers have drained some tasks.
 */
public class QueueFullException extends TooManyChildrenException {
    private static final long serialVersionUID = 1L;

    public QueueFullException(String message) {
        super(message);
    }

    public QueueFullException(String message, Throwable cause) {
        super(message, cause);
    }

    @Override
    public boolean retryable() {
        return true;
    }
}
