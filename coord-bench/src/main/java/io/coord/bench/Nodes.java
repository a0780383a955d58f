package io.coord.bench;

import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;

/** Set-up helpers outside the timed part of a round. */
final class Nodes {
    private Nodes() {
    }

    /** Creates {@code path} and its missing parents as empty persistent nodes. */
    static void ensure(ZooKeeper zk, String path) throws InterruptedException {
        int from = 1;
        while (from > 0) {
            int slash = path.indexOf('/', from);
            String prefix = slash < 0 ? path : path.substring(0, slash);
            try {
                zk.create(prefix, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            } catch (KeeperException.NodeExistsException e) {
                // already there: fine
            } catch (KeeperException e) {
                throw new IllegalStateException("could not create benchmark node " + prefix + ": " + e.getMessage(), e);
            }
            from = slash < 0 ? -1 : slash + 1;
        }
    }
}
