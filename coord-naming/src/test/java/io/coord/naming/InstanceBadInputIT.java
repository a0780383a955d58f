package io.coord.naming;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.coord.CoordClient;
import io.coord.test.BadInputs;
import io.coord.test.ZooKeeperExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Bad-input row 31 of RELIABILITY.md (c) with its four checks ({@link BadInputs}): a discovery
 * instance with a '/' in its name, a duplicate id, a port outside 1–65535 or a malformed payload
 * is refused with {@link InvalidInstanceException} naming the value, within 1 s (scaled), and
 * nothing on the server changes: the first instance of a duplicate id stays as it was.
 */
class InstanceBadInputIT {
    private static final String SERVICE = "orders.payments.prod";

    @RegisterExtension
    static final ZooKeeperExtension ZK = ZooKeeperExtension.single();

    @RegisterExtension
    final NamingThreadsCheck threads = new NamingThreadsCheck();

    private static Endpoint.Builder endpoint(String id) {
        return Endpoint.builder(SERVICE, id).address("10.0.0.5").port(8080);
    }

    @Test
    void aMalformedInstanceIsRefusedBeforeAnythingIsSent() throws Exception {
        CoordClient client = ZK.newClient();
        try (Discovery discovery = Discovery.open(client, DiscoveryOptions.defaults())) {
            discovery.register(endpoint("o-0").build()); // something on the server that must stay unchanged
            BadInputs.assertRefused("31 ('/' in the service name)", client, InvalidInstanceException.class,
                    () -> discovery.register(Endpoint.builder("orders/payments", "o-1").address("h").port(1).build()),
                    "service name \"orders/payments\" contains '/'");
            BadInputs.assertRefused("31 ('/' in the id)", client, InvalidInstanceException.class,
                    () -> discovery.register(endpoint("o/1").build()), "instance id of " + SERVICE, "\"o/1\"");
            BadInputs.assertRefused("31 (port 0)", client, InvalidInstanceException.class,
                    () -> discovery.register(endpoint("o-1").port(0).build()), "port 0 of instance o-1 is outside 1..65535");
            BadInputs.assertRefused("31 (port 65536)", client, InvalidInstanceException.class,
                    () -> discovery.register(endpoint("o-1").port(65536).build()), "port 65536", "outside 1..65535");
            BadInputs.assertRefused("31 (tlsPort -1)", client, InvalidInstanceException.class,
                    () -> discovery.register(endpoint("o-1").tlsPort(-1).build()), "tlsPort -1");
            BadInputs.assertRefused("31 (payload not JSON)", client, InvalidInstanceException.class,
                    () -> discovery.register(endpoint("o-1").payloadJson("{\"a\": }").build()),
                    "payload is not valid JSON at line 1, column");
            BadInputs.assertRefused("31 (payload not an object)", client, InvalidInstanceException.class,
                    () -> discovery.register(endpoint("o-1").payloadJson("[1, 2]").build()),
                    "payload of instance o-1 must be a JSON object, got ARRAY");
            String big = "{\"big\": \"" + "x".repeat(Endpoint.MAX_PAYLOAD_BYTES) + "\"}";
            BadInputs.assertRefused("31 (payload over the limit)", client, InvalidInstanceException.class,
                    () -> discovery.register(endpoint("o-1").payloadJson(big).build()),
                    "payload JSON is " + big.length() + " bytes", "over the limit of " + Endpoint.MAX_PAYLOAD_BYTES);
        }
    }

    @Test
    void aDuplicateIdIsRefusedNamingItAndTheFirstInstanceStaysAsItWas() throws Exception {
        CoordClient firstClient = ZK.newClient();
        CoordClient secondClient = ZK.newClient();
        try (Discovery first = Discovery.open(firstClient, DiscoveryOptions.defaults());
             Discovery second = Discovery.open(secondClient, DiscoveryOptions.defaults())) {
            Announcement a = first.register(endpoint("dup").weight(1).build());
            BadInputs.assertRefused("31 (duplicate id, same Discovery)", firstClient, InvalidInstanceException.class,
                    () -> first.register(endpoint("dup").weight(2).build()), "duplicate id", "instance \"dup\" of " + SERVICE,
                    "already registered through this Discovery");
            BadInputs.assertRefused("31 (duplicate id, another client)", secondClient, InvalidInstanceException.class,
                    () -> second.register(endpoint("dup").weight(2).build()), "duplicate id", "instance \"dup\" of " + SERVICE,
                    "already registered", "session 0x" + Long.toHexString(firstClient.curator().getZookeeperClient()
                            .getZooKeeper().getSessionId()));
            assertEquals(1, a.endpoint().weight(), "the first registration was not replaced");
            a.close();
        }
    }
}
