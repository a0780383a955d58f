package io.coord;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.internal.Payloads;
import io.coord.internal.Zk;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Bad-input row 13: a capped parent refuses one more child, and the refusal adds nothing. */
class ChildCapIT {
    @RegisterExtension
    static final CoreTestServer ZK = new CoreTestServer();

    @Test
    void row13ParentAtItsCapRefusesAnotherChildNamingTheCap() throws Exception {
        CoordClient client = ZK.client();
        CoordPath parent = CoordPath.of("/queues/jobs/tasks");
        client.curator().create().creatingParentsIfNeeded().forPath(parent.value());
        for (int i = 0; i < 3; i++) {
            Payloads.checkChildCap(Zk.of(client), parent, 3);
            client.curator().create().forPath(parent.child("t" + i).value());
        }
        TooManyChildrenException e = assertThrows(TooManyChildrenException.class,
                () -> Payloads.checkChildCap(Zk.of(client), parent, 3));
        assertTrue(e.getMessage().contains(parent.value()) && e.getMessage().contains("cap of 3"), e.getMessage());
        assertEquals(3, client.curator().getChildren().forPath(parent.value()).size());
    }
}
