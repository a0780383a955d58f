package io.coord.naming;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordPath;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class ServiceNamesTest {
    private static final CoordPath ROOT = CoordPath.of("/services");

    @Test
    void aDnsNameMapsToItsReversedPathAndBack() {
        CoordPath path = ServiceNames.servicePath(ROOT, "orders.payments.prod");
        assertEquals("/services/prod/payments/orders", path.value());
        assertEquals("/services/prod/payments/orders/_instances", ServiceNames.instancesPath(ROOT, "orders.payments.prod").value());
        assertEquals("orders.payments.prod", ServiceNames.nameOf(ROOT, path));
        assertEquals("prod", ServiceNames.nameOf(ROOT, CoordPath.of("/services/prod")));
        assertNull(ServiceNames.nameOf(ROOT, ROOT));
        assertNull(ServiceNames.nameOf(ROOT, CoordPath.of("/other/prod")));
    }

    @ParameterizedTest
    @ValueSource(strings = {"orders", "orders.payments.prod", "a", "x-1.y2.z-3", "0abc.123"})
    void validNamesPass(String name) {
        assertNull(ServiceNames.problem(name));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "orders/payments | contains '/'",
        "Orders.prod | upper-case letter 'O'",
        "orders..prod | empty label",
        ".orders | empty label",
        "orders. | empty label",
        "orders_v2 | character '_'",
        "-orders | starts or ends with '-'",
        "orders- | starts or ends with '-'",
        "ord ers | character ' '",
        "_instances.prod | character '_'"})
    void badNamesAreRefusedWithTheRuleAndTheInput(String name, String rule) {
        String problem = ServiceNames.problem(name);
        assertNotNull(problem, name);
        assertTrue(problem.contains(rule), problem);
        assertTrue(problem.contains("\"" + name + "\""), "the message quotes the input: " + problem);
    }

    @Test
    void lengthLimitsAreDnsLimits() {
        String label63 = "a".repeat(63);
        assertNull(ServiceNames.problem(label63));
        assertTrue(ServiceNames.problem("a".repeat(64)).contains("over the DNS limit of 63"));
        String name253 = (label63 + ".").repeat(3) + "a".repeat(61);
        assertEquals(253, name253.length());
        assertNull(ServiceNames.problem(name253));
        assertTrue(ServiceNames.problem(name253 + "a").contains("over the DNS limit of 253"));
        assertNotNull(ServiceNames.problem(""));
        assertNotNull(ServiceNames.problem(null));
        assertTrue(ServiceNames.problem("a\u0001b").contains("U+0001"));
    }
}
