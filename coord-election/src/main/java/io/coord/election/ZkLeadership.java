package io.coord.election;

import io.coord.internal.ForwardingLease;
import io.coord.internal.NodeLease;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A leadership: the shared {@link NodeLease} of the candidate node, plus who we are. Every
 * {@link io.coord.Lease} method is the lease's; ending (released or lost) runs {@code onEnd} once.
 */
final class ZkLeadership extends ForwardingLease implements Leadership {
    private final String election;
    private final LeaderInfo info;
    private final Runnable onEnd;
    private final AtomicBoolean ended = new AtomicBoolean();

    ZkLeadership(NodeLease lease, String election, LeaderInfo info, Runnable onEnd) {
        super(lease);
        this.election = election;
        this.info = info;
        this.onEnd = onEnd;
        lease.onRelease(this::end);
        if (lease.state().isTerminal()) {
            end(); // it ended before the release step was set: run it here instead
        }
    }

    private void end() {
        if (ended.compareAndSet(false, true)) {
            onEnd.run();
        }
    }

    @Override
    public String election() {
        return election;
    }

    @Override
    public LeaderInfo info() {
        return info;
    }

    @Override
    public String toString() {
        return "Leadership[" + election + " " + info.id() + " epoch 0x" + Long.toHexString(token().value()) + " " + state() + "]";
    }
}
