package io.coord.barrier;

import io.coord.CoordClient;
import io.coord.test.LeaseContract;
import java.time.Duration;

/**
 * The lease contract for the {@link BarrierSeat} a member holds while in a barrier, left the
 * barrier's own way by {@link BarrierSeat#leave}. One party, so that entering and leaving need
 * nobody else.
 */
class BarrierSeatContractIT extends LeaseContract {
    @Override
    protected Held acquire(CoordClient client, Duration timeout) throws Exception {
        BarrierSeat seat = DoubleBarrier.create(client, "contract", 1).enter(timeout);
        return new Held(seat, () -> seat.leave(timeout), null);
    }
}
