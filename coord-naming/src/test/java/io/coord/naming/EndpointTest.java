package io.coord.naming;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/** RELIABILITY.md bad-input row 31: each bad instance is refused with an error naming the value and the rule. */
class EndpointTest {
    private static Endpoint build(UnaryOperator<Endpoint.Builder> change) {
        return change.apply(Endpoint.builder("orders.payments.prod", "o-1").address("10.0.0.5").port(8080)).build();
    }

    private static void refused(String expected, UnaryOperator<Endpoint.Builder> change) {
        InvalidInstanceException e = assertThrows(InvalidInstanceException.class, () -> build(change));
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }

    @Test
    void aValidInstanceKeepsWhatItWasGiven() {
        Endpoint e = build(b -> b.tlsPort(8443).zone("eu-1").weight(5).payloadJson("{\"v\": 2}"));
        assertEquals(8443, e.tlsPort().getAsInt());
        assertEquals("eu-1", e.zone());
        assertEquals(2, e.payload().get("v").asInt());
        assertEquals("10.0.0.5:8080", e.hostAndPort());
        assertTrue(e.inService());
    }

    @Test
    void slashInTheServiceNameIsRefused() {
        assertThrows(InvalidInstanceException.class,
                () -> Endpoint.builder("orders/payments", "o-1").address("h").port(1).build());
    }

    @Test
    void slashInTheIdIsRefused() {
        InvalidInstanceException e = assertThrows(InvalidInstanceException.class,
                () -> Endpoint.builder("orders", "o/1").address("h").port(1).build());
        assertTrue(e.getMessage().contains("\"o/1\""), e.getMessage());
    }

    @Test
    void portsOutsideTheRangeAreRefused() {
        refused("port 0 of instance o-1 is outside 1..65535", b -> b.port(0));
        refused("port 65536", b -> b.port(65536));
        refused("tlsPort -1", b -> b.tlsPort(-1));
    }

    @Test
    void malformedPayloadsAreRefusedWithTheLocation() {
        refused("payload is not valid JSON at line 1, column", b -> b.payloadJson("{\"a\": }"));
        refused("must be a JSON object", b -> b.payloadJson("[1, 2]"));
        refused("payload JSON is empty", b -> b.payloadJson(" "));
        refused("over the limit", b -> b.payloadJson("{\"big\": \"" + "x".repeat(Endpoint.MAX_PAYLOAD_BYTES) + "\"}"));
    }

    @Test
    void otherBadFieldsAreRefused() {
        refused("weight 0", b -> b.weight(0));
        refused("zone of instance o-1 is invalid", b -> b.zone("EU 1"));
        refused("address \"a b\"", b -> b.address("a b"));
        refused("address null", b -> b.address(null));
    }

    @Test
    void thePayloadCannotBeChangedFromOutside() {
        ObjectNode payload = Endpoint.parsePayload("{\"v\": 1}").deepCopy();
        Endpoint e = build(b -> b.payload(payload));
        payload.put("v", 2);
        ((ObjectNode) e.payload()).put("v", 3);
        assertEquals(1, e.payload().get("v").asInt());
    }
}
