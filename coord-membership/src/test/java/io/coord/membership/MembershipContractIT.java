package io.coord.membership;

import io.coord.CoordClient;
import io.coord.CoordException;
import io.coord.CoordPath;
import io.coord.CoordSession;
import io.coord.FencingToken;
import io.coord.Lease;
import io.coord.LeaseListener;
import io.coord.LeaseState;
import io.coord.LockLostException;
import io.coord.Registration;
import io.coord.SessionState;
import io.coord.test.LeaseContract;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.curator.framework.api.transaction.CuratorTransactionResult;
import org.apache.zookeeper.data.Stat;

/**
 * The lease contract for a {@link Membership}, left the group's own way by {@link Membership#leave()}.
 *
 * <p>A membership is not a {@link Lease}: it has its own states and, by default, outlives its node
 * (it rejoins). With {@link GroupOptions#rejoin() rejoin} off, losing the node is final, and the
 * membership is a lease on one node; {@link AsLease} reads it through the lease contract, state
 * for state (JOINED is ACQUIRED, SUSPENDED is UNCERTAIN, LEFT is RELEASED), call for call. Its
 * {@code checkValid} asks what a metadata {@link Membership#update} requires: JOINED on a
 * connected session (not the update itself, which would write on every check).
 */
class MembershipContractIT extends LeaseContract {
    @Override
    protected Held acquire(CoordClient client, Duration timeout) throws Exception {
        Group<String> group = Group.open(client, "contract", GroupOptions.builder(String.class).rejoin(false).build());
        Membership<String> membership = group.join("member-" + System.nanoTime(), "meta");
        return new Held(new AsLease(membership), membership::leave, group);
    }

    /** A membership without rejoin, seen as the lease it is. Guarded writes are not part of a membership. */
    private record AsLease(Membership<String> membership) implements Lease {
        @Override
        public FencingToken token() {
            return new FencingToken(membership.incarnation(), membership.node());
        }

        @Override
        public LeaseState state() {
            return switch (membership.state()) {
                case JOINED -> LeaseState.ACQUIRED;
                case SUSPENDED -> LeaseState.UNCERTAIN;
                case LOST -> LeaseState.LOST;
                case LEFT -> LeaseState.RELEASED;
                case REJOINING -> throw new AssertionError("rejoin is off, yet " + membership + " is rejoining");
            };
        }

        @Override
        public CoordSession session() {
            return membership.session();
        }

        /** A membership has no guard of its own: "JOINED on a connected session" is what its {@code update} requires. */
        @Override
        public void checkValid() {
            Membership.State now = membership.state();
            if (now != Membership.State.JOINED || membership.session().state() != SessionState.CONNECTED) {
                throw new LockLostException("member " + membership.memberId() + " is " + now + ", session " + membership.session().state());
            }
        }

        @Override
        public CompletableFuture<LeaseState> ended() {
            return membership.ended().thenApply(s -> s == Membership.State.LEFT ? LeaseState.RELEASED : LeaseState.LOST);
        }

        @Override
        public Registration addListener(LeaseListener listener, Executor executor) {
            Lease self = this;
            return membership.addListener(new Membership.Listener() {
                @Override
                public void onSuspended(Membership<?> m) {
                    listener.onUncertain(self);
                }

                @Override
                public void onRestored(Membership<?> m) {
                    listener.onRestored(self);
                }

                @Override
                public void onNodeLost(Membership<?> m, CoordException cause) {
                    throw new AssertionError("rejoin is off, yet " + m + " says its node is lost and a rejoin is under way");
                }

                @Override
                public void onLost(Membership<?> m, CoordException cause) {
                    listener.onLost(self, cause);
                }

                @Override
                public void onLeft(Membership<?> m) {
                    listener.onReleased(self);
                }
            }, executor);
        }

        @Override
        public CuratorOp fenceCheck() {
            throw new UnsupportedOperationException("a membership fences nothing");
        }

        @Override
        public Stat guardedSetData(CoordPath target, byte[] data) {
            throw new UnsupportedOperationException("a membership fences nothing");
        }

        @Override
        public List<CuratorTransactionResult> guardedTransaction(List<CuratorOp> ops) {
            throw new UnsupportedOperationException("a membership fences nothing");
        }

        @Override
        public void close() {
            membership.close();
        }
    }
}
