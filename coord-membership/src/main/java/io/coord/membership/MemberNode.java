package io.coord.membership;

import io.coord.CoordPath;
import io.coord.SessionExpiredException;
import io.coord.internal.Zk;
import io.coord.internal.ZkSession;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * ZooKeeper plumbing for one member node at its exact path {@code /groups/{group}/{id}}.
 *
 * <p>Why not {@code LeaseNodes.create}: a member id must collide with the same id of another
 * session (that is how duplicates are refused), so the path carries no protection prefix. For the
 * same reason a member node is never deleted by path alone (a guaranteed delete could, after an
 * expiry, remove a node another session created under the same id): {@link #deleteIfOwned}
 * checks the session and the incarnation first.
 */
final class MemberNode {
    private MemberNode() {
    }

    /** What a create found. */
    sealed interface Outcome permits Created, Held {
    }

    /** Our node now exists: its stat (czxid, ctime) and the session that owns it. */
    record Created(Stat stat, ZkSession session) implements Outcome {
    }

    /** A node is already there: its stat says who holds it ({@code ephemeralOwner}, 0 for a persistent node). */
    record Held(Stat stat) implements Outcome {
    }

    /**
     * Creates the ephemeral node {@code node} holding {@code data}; parents are created
     * (persistent) when missing. Reports a node already there instead of failing.
     */
    static Outcome create(Zk zk, CoordPath node, byte[] data) throws InterruptedException {
        for (int attempt = 0; ; attempt++) {
            ZkSession before = zk.liveSession();
            Stat stat = new Stat();
            try {
                zk.curator().create().storingStatIn(stat).creatingParentsIfNeeded().withMode(CreateMode.EPHEMERAL)
                        .forPath(node.value(), data);
            } catch (KeeperException.NodeExistsException e) {
                Stat held = zk.call(node, () -> zk.curator().checkExists().forPath(node.value()));
                if (held != null || attempt >= 2) {
                    if (held == null) {
                        throw zk.translate(e, node);
                    }
                    return new Held(held);
                }
                continue; // gone between the create and the read: try again
            } catch (InterruptedException e) {
                throw e;
            } catch (Exception e) {
                throw zk.translate(e, node);
            }
            ZkSession owner = zk.sessions().current();
            if (owner == null || owner.id() != stat.getEphemeralOwner() || owner.state().isTerminal()) {
                // The session changed while the create was in flight: the node belonged to a session
                // that has ended, and went with it. Nothing to clean up, but this is not a join.
                throw new SessionExpiredException("session " + before.idHex() + " ended while creating " + node);
            }
            return new Created(stat, owner);
        }
    }

    /** Writes {@code data} into a node found {@link Held} by our own session (a create retried after a lost reply). */
    static Stat adopt(Zk zk, CoordPath node, Stat held, byte[] data) throws InterruptedException {
        return zk.call(node, () -> zk.curator().setData().withVersion(held.getVersion()).forPath(node.value(), data));
    }

    /**
     * Deletes {@code node} only if it is still the incarnation {@code czxid} of session
     * {@code sessionId}. Returns normally when the node is gone or belongs to someone else.
     */
    static void deleteIfOwned(Zk zk, CoordPath node, long sessionId, long czxid) throws InterruptedException {
        for (int attempt = 0; attempt < 3; attempt++) {
            Stat stat = zk.call(node, () -> zk.curator().checkExists().forPath(node.value()));
            if (stat == null || stat.getEphemeralOwner() != sessionId || stat.getCzxid() != czxid) {
                return;
            }
            try {
                zk.curator().delete().withVersion(stat.getVersion()).forPath(node.value());
                return;
            } catch (KeeperException.NoNodeException e) {
                return;
            } catch (KeeperException.BadVersionException e) {
                // our own update raced the delete: read again
            } catch (InterruptedException e) {
                throw e;
            } catch (Exception e) {
                throw zk.translate(e, node);
            }
        }
    }

    /**
     * {@link #deleteIfOwned} without blocking, for event threads: the read and the delete are
     * background requests, each reply sends the next. {@code done} hears true once the node is gone
     * or not ours (or the server refused for good), false when the connection failed first
     * (then the caller tries again later).
     */
    static void deleteIfOwnedInBackground(Zk zk, CoordPath node, long sessionId, long czxid, java.util.function.Consumer<Boolean> done) {
        deleteIfOwnedInBackground(zk, node, sessionId, czxid, 3, done);
    }

    private static void deleteIfOwnedInBackground(Zk zk, CoordPath node, long sessionId, long czxid, int attempts,
            java.util.function.Consumer<Boolean> done) {
        try {
            zk.curator().checkExists().inBackground((client, read) -> {
                KeeperException.Code code = KeeperException.Code.get(read.getResultCode());
                Stat stat = read.getStat();
                if (code == KeeperException.Code.NONODE || (code == KeeperException.Code.OK && (stat == null
                        || stat.getEphemeralOwner() != sessionId || stat.getCzxid() != czxid))) {
                    done.accept(true);
                    return;
                }
                if (code != KeeperException.Code.OK) {
                    done.accept(!connectionTrouble(code));
                    return;
                }
                client.delete().withVersion(stat.getVersion()).inBackground((c, deleted) -> {
                    KeeperException.Code d = KeeperException.Code.get(deleted.getResultCode());
                    if (d == KeeperException.Code.BADVERSION && attempts > 1) {
                        // our own update raced the delete: read again
                        deleteIfOwnedInBackground(zk, node, sessionId, czxid, attempts - 1, done);
                    } else {
                        done.accept(!connectionTrouble(d));
                    }
                }).forPath(node.value());
            }).forPath(node.value());
        } catch (Exception e) {
            done.accept(false);
        }
    }

    private static boolean connectionTrouble(KeeperException.Code code) {
        return code == KeeperException.Code.CONNECTIONLOSS || code == KeeperException.Code.OPERATIONTIMEOUT
                || code == KeeperException.Code.REQUESTTIMEOUT || code == KeeperException.Code.SESSIONMOVED;
    }
}
