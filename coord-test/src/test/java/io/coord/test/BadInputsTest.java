package io.coord.test;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordClient;
import io.coord.InvalidNameException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The checker bites: each of the four checks of {@link BadInputs} fails a refusal that breaks it. */
class BadInputsTest {
    @RegisterExtension
    static final ZooKeeperExtension ZK = ZooKeeperExtension.single();

    @Test
    void aCleanRefusalPassesAndEachBrokenCheckFails() throws Exception {
        CoordClient client = ZK.newClient();
        client.curator().create().creatingParentsIfNeeded().forPath("/a/b", new byte[] {1});
        BadInputs.assertRefused("clean", client, InvalidNameException.class, () -> {
            throw new InvalidNameException("name \"x/y\" contains '/'");
        }, "\"x/y\"");

        expectCheckFails("accepted", client, () -> { }, "accepted");
        expectCheckFails("wrong type", client, () -> {
            throw new IllegalStateException("name \"x/y\"");
        }, "wrong error");
        expectCheckFails("value not named", client, () -> {
            throw new InvalidNameException("a bad name");
        }, "the message names");
        expectCheckFails("retryable", client, () -> {
            throw new InvalidNameException("name \"x/y\"") {
                @Override
                public boolean retryable() {
                    return true;
                }
            };
        }, "final");
        expectCheckFails("too slow", client, () -> {
            Thread.sleep(Awaits.scaled(BadInputs.BOUND).toMillis() + 50);
            throw new InvalidNameException("name \"x/y\"");
        }, "refused within");
        expectCheckFails("a node written", client, () -> {
            client.curator().setData().forPath("/a/b", new byte[] {2});
            throw new InvalidNameException("name \"x/y\"");
        }, "nothing on the server");
        expectCheckFails("a node created and deleted again", client, () -> {
            client.curator().create().forPath("/a/b/tmp");
            client.curator().delete().forPath("/a/b/tmp");
            throw new InvalidNameException("name \"x/y\"");
        }, "nothing on the server");
    }

    private static void expectCheckFails(String what, CoordClient client, org.junit.jupiter.api.function.Executable call,
                                         String says) {
        AssertionError e = assertThrows(AssertionError.class,
                () -> BadInputs.assertRefused(what, client, InvalidNameException.class, call, "\"x/y\""), what);
        assertTrue(e.getMessage().contains(says), what + ": " + e.getMessage());
    }
}
