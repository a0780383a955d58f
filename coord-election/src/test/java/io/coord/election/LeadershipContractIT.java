package io.coord.election;

import io.coord.CoordClient;
import io.coord.test.LeaseContract;
import java.time.Duration;

/** The lease contract for a {@link Leadership} won by {@link Election#campaign}, released by {@link Leadership#resign()}. */
class LeadershipContractIT extends LeaseContract {
    @Override
    protected Held acquire(CoordClient client, Duration timeout) throws Exception {
        Election election = Election.open(client, "contract");
        Leadership leadership = election.campaign(timeout);
        return new Held(leadership, leadership::resign, election);
    }
}
