package io.coord.naming;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CodecException;
import io.coord.CoordClient;
import io.coord.test.ZooKeeperExtension;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Foreign and corrupt nodes in an ID name's directory and a unique name's directory are reported by
 * name: a child neither recipe uses is logged at WARN once (and, for IDs, listed by
 * {@link IdStatus}) while the recipe goes on; an owner node Coord cannot decode is refused naming
 * it, and left as it is.
 */
class ForeignNamingNodesIT {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.single();

    @Test
    void aStrayChildOfAnIdNameIsLoggedOnceListedAndIgnored() throws Exception {
        CoordClient client = zk.newClient();
        SequenceIds.open(client, "stray").next();
        client.curator().create().forPath("/ids/stray/counter-old", new byte[0]);
        try (LogCapture log = new LogCapture()) {
            long a = SequenceIds.open(client, "stray").next();
            long b = SequenceIds.open(zk.newClient(), "stray").next();
            assertTrue(b > a, "the generators go on beside it");
            try (BlockIds blocks = BlockIds.open(client, "stray", IdOptions.builder().blockSize(10).build())) {
                blocks.next();
            }
            assertEquals(1, log.warnings("/ids/stray/counter-old"), "logged once:\n" + log.text());
        }
        assertEquals(List.of("/ids/stray/counter-old: a node SequenceIds and BlockIds do not use"),
                IdStatus.read(client, "stray").foreign());
    }

    @Test
    void aStrayChildOfAUniqueNameIsLoggedOnceAndClaimsGoOn() throws Exception {
        CoordClient client = zk.newClient();
        client.curator().create().creatingParentsIfNeeded().forPath("/names/printer-3/notes", new byte[0]);
        UniqueNames names = UniqueNames.open(client, "worker-1");
        try (LogCapture log = new LogCapture()) {
            try (NameClaim claim = names.claim("printer-3")) {
                assertEquals(Optional.of("worker-1"), names.owner("printer-3"));
            }
            try (NameClaim again = UniqueNames.open(zk.newClient(), "worker-2").claim("printer-3")) {
                assertEquals(Optional.of("worker-2"), names.owner("printer-3"));
            }
            names.claimPersistent("printer-3").close();
            assertEquals(1, log.warnings("/names/printer-3/notes"), "logged once:\n" + log.text());
        }
    }

    @Test
    void anOwnerNodeCoordCannotDecodeIsRefusedByNameAndLeftAsItIs() throws Exception {
        CoordClient client = zk.newClient();
        byte[] garbage = "held by the old tool".getBytes(StandardCharsets.UTF_8);
        client.curator().create().creatingParentsIfNeeded().forPath("/names/scanner-1/owner", garbage);
        UniqueNames names = UniqueNames.open(client, "worker-1");

        for (CodecException e : List.of(assertThrows(CodecException.class, () -> names.claim("scanner-1")),
                assertThrows(CodecException.class, () -> names.claimPersistent("scanner-1")),
                assertThrows(CodecException.class, () -> names.owner("scanner-1")))) {
            assertTrue(e.getMessage().contains("/names/scanner-1/owner"), "names the node: " + e.getMessage());
        }
        assertArrayEquals(garbage, client.curator().getData().forPath("/names/scanner-1/owner"), "nothing lost");
        assertEquals(List.of("owner"), client.curator().getChildren().forPath("/names/scanner-1"), "no claim left behind");
    }
}
