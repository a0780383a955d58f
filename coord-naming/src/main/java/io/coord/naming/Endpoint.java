package io.coord.naming;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.coord.Codec;
import io.coord.CoordPath;
import io.coord.InvalidNameException;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * One instance of a service, as registered and as resolved. Validated on construction: an
 * {@code Endpoint} that exists is one discovery accepts; anything else is an
 * {@link InvalidInstanceException} quoting the bad value.
 *
 * @param service   DNS-style service name, most specific label first ({@code orders.payments.prod}):
 *                  lower-case labels of a-z, 0-9 and '-', 1..63 characters each, 253 in all
 * @param id        this instance's id, unique within the service (one path segment, 1..255 characters)
 * @param address   host name or IP address (no spaces, no '/')
 * @param port      1..65535
 * @param tlsPort   the TLS port, 1..65535, if the instance has one
 * @param zone      an availability zone (a DNS label), or null; see {@link Strategy#ZONE_PREFERRING}
 * @param weight    1..10 000, relative share under {@link Strategy#WEIGHTED}
 * @param payload   application data: a JSON object of at most {@value #MAX_PAYLOAD_BYTES} bytes
 * @param inService false while the instance is out of service (maintenance, or its health check
 *                  fails): registered, listed, but never resolved
 */
public record Endpoint(String service, String id, String address, int port, OptionalInt tlsPort, String zone, int weight,
                       JsonNode payload, boolean inService) {
    public static final int MAX_PAYLOAD_BYTES = 64 * 1024;
    public static final int MAX_WEIGHT = 10_000;

    public Endpoint {
        String problem = ServiceNames.problem(service);
        if (problem != null) {
            throw new InvalidInstanceException(problem);
        }
        try {
            CoordPath.validateName(id);
        } catch (InvalidNameException e) {
            throw new InvalidInstanceException("instance id of " + service + " is invalid: " + e.getMessage(), e);
        }
        if (address == null || address.isEmpty() || address.length() > 255 || address.chars().anyMatch(c -> c <= ' ' || c == '/' || c >= 0x7f)) {
            throw new InvalidInstanceException("address " + (address == null ? "null" : ServiceNames.quote(address)) + " of instance "
                    + id + " is invalid: a host name or IP address of 1..255 visible characters, without '/'");
        }
        checkPort("port", port, id);
        Objects.requireNonNull(tlsPort, "tlsPort (use OptionalInt.empty())");
        if (tlsPort.isPresent()) {
            checkPort("tlsPort", tlsPort.getAsInt(), id);
        }
        if (zone != null) {
            String zoneProblem = ServiceNames.labelProblem(zone);
            if (zoneProblem != null) {
                throw new InvalidInstanceException("zone of instance " + id + " is invalid: " + zoneProblem);
            }
        }
        if (weight < 1 || weight > MAX_WEIGHT) {
            throw new InvalidInstanceException("weight " + weight + " of instance " + id + " is outside 1.." + MAX_WEIGHT);
        }
        payload = checkPayload(payload == null ? JsonNodeFactory.instance.objectNode() : payload, id);
    }

    private static void checkPort(String what, int port, String id) {
        if (port < 1 || port > 65535) {
            throw new InvalidInstanceException(what + " " + port + " of instance " + id + " is outside 1..65535");
        }
    }

    private static JsonNode checkPayload(JsonNode payload, String id) {
        if (!payload.isObject()) {
            throw new InvalidInstanceException("payload of instance " + id + " must be a JSON object, got " + payload.getNodeType());
        }
        byte[] bytes;
        try {
            bytes = Codec.mapper().writeValueAsBytes(payload);
        } catch (JsonProcessingException e) {
            throw new InvalidInstanceException("payload of instance " + id + " cannot be serialized: " + e.getOriginalMessage(), e);
        }
        if (bytes.length > MAX_PAYLOAD_BYTES) {
            throw new InvalidInstanceException("payload of instance " + id + " is " + bytes.length + " bytes, over the limit of "
                    + MAX_PAYLOAD_BYTES);
        }
        return payload.deepCopy();
    }

    /** Parses a payload given as JSON text, strictly; {@link InvalidInstanceException} names line and column. */
    public static JsonNode parsePayload(String json) {
        if (json == null || json.isBlank()) {
            throw new InvalidInstanceException("payload JSON is empty");
        }
        int bytes = json.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_PAYLOAD_BYTES) {
            throw new InvalidInstanceException("payload JSON is " + bytes + " bytes, over the limit of " + MAX_PAYLOAD_BYTES + " bytes");
        }
        try {
            return Codec.mapper().readTree(json);
        } catch (JsonProcessingException e) {
            var at = e.getLocation();
            throw new InvalidInstanceException("payload is not valid JSON" + (at == null ? "" : " at line " + at.getLineNr()
                    + ", column " + at.getColumnNr()) + ": " + e.getOriginalMessage(), e);
        }
    }

    /** A copy of the payload (the record's own is never handed out for mutation). */
    @Override
    public JsonNode payload() {
        return payload.deepCopy();
    }

    /** The payload without copying, for this package's serializer. */
    JsonNode payloadView() {
        return payload;
    }

    /** {@code address:port}. */
    public String hostAndPort() {
        return address.indexOf(':') >= 0 ? "[" + address + "]:" + port : address + ":" + port;
    }

    public static Builder builder(String service, String id) {
        return new Builder(service, id);
    }

    public Builder toBuilder() {
        Builder b = new Builder(service, id);
        b.address = address;
        b.port = port;
        b.tlsPort = tlsPort;
        b.zone = zone;
        b.weight = weight;
        b.payload = payload;
        b.inService = inService;
        return b;
    }

    /** Builds an {@link Endpoint}; {@link #build()} validates. Defaults: no TLS port, no zone, weight 1, payload {}, in service. */
    public static final class Builder {
        private final String service;
        private final String id;
        private String address;
        private int port;
        private OptionalInt tlsPort = OptionalInt.empty();
        private String zone;
        private int weight = 1;
        private JsonNode payload;
        private boolean inService = true;

        private Builder(String service, String id) {
            this.service = service;
            this.id = id;
        }

        public Builder address(String address) {
            this.address = address;
            return this;
        }

        public Builder port(int port) {
            this.port = port;
            return this;
        }

        public Builder tlsPort(int port) {
            this.tlsPort = OptionalInt.of(port);
            return this;
        }

        public Builder zone(String zone) {
            this.zone = zone;
            return this;
        }

        public Builder weight(int weight) {
            this.weight = weight;
            return this;
        }

        public Builder payload(JsonNode payload) {
            this.payload = payload;
            return this;
        }

        /** The payload as JSON text, parsed strictly here. */
        public Builder payloadJson(String json) {
            this.payload = parsePayload(json);
            return this;
        }

        public Builder inService(boolean inService) {
            this.inService = inService;
            return this;
        }

        public Endpoint build() {
            return new Endpoint(service, id, address, port, tlsPort, zone, weight, payload, inService);
        }
    }
}
