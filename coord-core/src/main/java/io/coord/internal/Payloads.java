package io.coord.internal;

import io.coord.CoordPath;
import io.coord.TooManyChildrenException;
import io.coord.ValueTooLargeException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.jute.BinaryOutputArchive;
import org.apache.zookeeper.data.Stat;

/**
 * Size checks made before anything is sent. ZooKeeper answers an oversize request by dropping the
 * connection, which Curator retries until it gives up with ConnectionLoss; a check here turns that
 * into one clear, immediate, final error.
 */
public final class Payloads {
    /**
     * Largest transaction Coord sends: ZooKeeper's default {@code jute.maxbuffer} (1 048 575 bytes)
     * less room for the request header.
     */
    public static final int TRANSACTION_LIMIT = 1_048_575 - 1024;

    private Payloads() {
    }

    /** The serialized size of a transaction's operations, as the server will read them. */
    public static long requestBytes(List<CuratorOp> ops) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        BinaryOutputArchive archive = BinaryOutputArchive.getArchive(bytes);
        try {
            for (CuratorOp op : ops) {
                op.get().toRequestRecord().serialize(archive, "op");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.size();
    }

    /** Throws {@link ValueTooLargeException} naming the first path if the transaction is over {@code limit}. */
    public static void checkTransaction(List<CuratorOp> ops, int limit) {
        long size = requestBytes(ops);
        if (size > limit) {
            String first = ops.isEmpty() ? "?" : ops.get(0).get().getPath();
            throw new ValueTooLargeException("transaction of " + ops.size() + " operations (the first on " + first + ") is " + size
                    + " bytes, over the limit of " + limit + " bytes for one request (jute.maxbuffer = 1048575 bytes, less room"
                    + " for the header); nothing was written", first, size, limit);
        }
    }

    /**
     * Throws {@link TooManyChildrenException} if {@code parent} already has {@code cap} children.
     * Reading a parent with too many children fails with ConnectionLoss (the listing exceeds
     * jute.maxbuffer), so recipes cap the count before adding one.
     */
    public static void checkChildCap(Zk zk, CoordPath parent, int cap) throws InterruptedException {
        Stat stat = zk.call(parent, () -> zk.curator().checkExists().forPath(parent.value()));
        if (stat != null && stat.getNumChildren() >= cap) {
            throw new TooManyChildrenException(parent + " already has " + stat.getNumChildren()
                    + " children, at its cap of " + cap + "; nothing was added");
        }
    }
}
