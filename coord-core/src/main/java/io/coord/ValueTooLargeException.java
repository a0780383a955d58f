package io.coord;

/**
 * A value is larger than the limit for its node, detected before anything was sent. Without this
 * check ZooKeeper drops the connection on every attempt and the caller sees only ConnectionLoss
 * after several seconds of retries.
 */
public class ValueTooLargeException extends CoordException {
    private static final long serialVersionUID = 1L;

    private final String path;
    private final long size;
    private final long limit;

    public ValueTooLargeException(String path, long size, long limit) {
        this("value for " + path + " is " + size + " bytes, over the limit of " + limit
                + " bytes (a znode holds at most jute.maxbuffer = 1048575 bytes); nothing was written", path, size, limit);
    }

    /** With a message of its own, for what is not one node's value (a whole transaction). */
    public ValueTooLargeException(String message, String path, long size, long limit) {
        super(message);
        this.path = path;
        this.size = size;
        this.limit = limit;
    }

    public String path() {
        return path;
    }

    public long size() {
        return size;
    }

    public long limit() {
        return limit;
    }
}
