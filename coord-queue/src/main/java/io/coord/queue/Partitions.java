package io.coord.queue;

import io.coord.ConfigurationException;
import io.coord.internal.Zk;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * The partition count a queue was made with, recorded on the server in the data of its root
 * {@code /queues/{name}} as {@code partitions=N} when a queue of N &gt; 1 partitions is made. A root
 * without that record is an unpartitioned queue (1), so queues made before partitions existed keep
 * their layout. Opening a queue with a count that disagrees is refused naming both: producers
 * spreading over another count would put tasks where its consumers never look.
 */
final class Partitions {
    static final String RECORD_PREFIX = "partitions=";

    private Partitions() {
    }

    /**
     * The queue's partition count: the one recorded, or {@code wanted} recorded now for a new queue
     * ({@link QueueOptions#AS_RECORDED} takes the recorded count, 1 if there is none).
     *
     * @throws ConfigurationException if the recorded count is not {@code wanted}
     */
    static int recordOrCheck(Zk zk, QueueLayout layout, int wanted, List<String> rootChildren) {
        for (int round = 0; ; round++) {
            Stat stat = new Stat();
            byte[] data = zk.callUninterruptibly(layout.root, () -> {
                try {
                    return zk.curator().getData().storingStatIn(stat).forPath(layout.root.value());
                } catch (KeeperException.NoNodeException none) {
                    return null;
                }
            });
            boolean exists = data != null;
            int recorded = exists ? parse(layout, data) : 0;
            boolean unpartitionedLayout = rootChildren.stream().anyMatch(QueueLayout::isRootChild);
            if (recorded == 0 && (unpartitionedLayout || wanted == 1 || wanted == QueueOptions.AS_RECORDED)) {
                recorded = 1; // no record: the unpartitioned layout, made now or before partitions existed
            }
            if (recorded != 0) {
                if (wanted != QueueOptions.AS_RECORDED && wanted != recorded) {
                    throw mismatch(layout, recorded, wanted);
                }
                return recorded;
            }
            // A new queue (or an empty root) of `wanted` > 1 partitions: record the count, first writer wins.
            byte[] record = (RECORD_PREFIX + wanted).getBytes(StandardCharsets.UTF_8);
            boolean written = zk.callUninterruptibly(layout.root, () -> {
                try {
                    if (exists) {
                        zk.curator().setData().withVersion(stat.getVersion()).forPath(layout.root.value(), record);
                    } else {
                        zk.curator().create().creatingParentsIfNeeded().forPath(layout.root.value(), record);
                    }
                    return true;
                } catch (KeeperException.NodeExistsException | KeeperException.BadVersionException raced) {
                    return false;
                }
            });
            if (written) {
                return wanted;
            }
            if (round > 3) {
                throw new ConfigurationException("could not record the partition count of queue '" + layout.name + "' at "
                        + layout.root + ": other openers keep changing it");
            }
        }
    }

    /** The count in a root's data: 0 if it records none. */
    private static int parse(QueueLayout layout, byte[] data) {
        String s = new String(data, StandardCharsets.UTF_8).trim();
        if (!s.startsWith(RECORD_PREFIX)) {
            return 0;
        }
        try {
            int n = Integer.parseInt(s.substring(RECORD_PREFIX.length()));
            if (n >= 1 && n <= QueueOptions.MAX_PARTITIONS) {
                return n;
            }
        } catch (NumberFormatException e) {
            // fall through
        }
        throw new ConfigurationException("queue '" + layout.name + "' at " + layout.root + " records \"" + s
                + "\", not a partition count within 1.." + QueueOptions.MAX_PARTITIONS + "; repair the root's data");
    }

    private static ConfigurationException mismatch(QueueLayout layout, int recorded, int wanted) {
        return new ConfigurationException("queue '" + layout.name + "' has " + recorded + " partition(s) on the server ("
                + layout.root + (recorded == 1 ? ", unpartitioned layout" : " records " + RECORD_PREFIX + recorded)
                + ") but was opened with partitions = " + wanted + "; open it with partitions(" + recorded
                + ") (or QueueOptions.AS_RECORDED): producers and consumers of one queue must agree on the count");
    }
}
