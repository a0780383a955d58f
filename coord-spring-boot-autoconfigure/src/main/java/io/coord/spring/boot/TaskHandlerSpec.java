package io.coord.spring.boot;

import io.coord.ConfigurationException;
import io.coord.CoordPath;
import io.coord.InvalidNameException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import org.springframework.core.MethodParameter;
import org.springframework.core.ResolvableType;

/**
 * One checked {@link CoordTaskHandler @CoordTaskHandler} method: its queue, consumers, payload
 * type and whether it takes the claim or the payload. Refuses a method it could not serve.
 */
record TaskHandlerSpec(Object bean, Method method, String queue, int concurrency, Class<?> payloadType, boolean takesClaim) {
    static final String CLAIM_TYPE = "io.coord.queue.TaskClaim";

    static TaskHandlerSpec of(Object bean, Method method, CoordTaskHandler annotation) {
        String where = method.getDeclaringClass().getName() + "." + method.getName();
        if (Modifier.isPrivate(method.getModifiers()) || Modifier.isStatic(method.getModifiers())) {
            throw new ConfigurationException("@CoordTaskHandler method " + where + " must be neither private nor static");
        }
        if (method.getParameterCount() != 1) {
            throw new ConfigurationException("@CoordTaskHandler method " + where + " must take one parameter (the payload or"
                    + " the TaskClaim), it takes " + method.getParameterCount());
        }
        try {
            CoordPath.validateName(annotation.queue());
        } catch (InvalidNameException e) {
            throw new ConfigurationException("@CoordTaskHandler(queue = \"" + annotation.queue() + "\") on " + where
                    + ": " + e.getMessage(), e);
        }
        if (annotation.concurrency() < 1) {
            throw new ConfigurationException("@CoordTaskHandler(concurrency = " + annotation.concurrency() + ") on " + where
                    + ": must be >= 1");
        }
        Class<?> parameter = method.getParameterTypes()[0];
        boolean takesClaim = parameter.getName().equals(CLAIM_TYPE);
        Class<?> type = annotation.type() != Void.class ? annotation.type()
                : takesClaim ? ResolvableType.forMethodParameter(new MethodParameter(method, 0)).getGeneric(0).resolve()
                : parameter;
        if (type == null || type == Object.class && takesClaim && annotation.type() == Void.class) {
            throw new ConfigurationException("@CoordTaskHandler method " + where + " takes a TaskClaim without a payload type:"
                    + " write TaskClaim<Job> or set type = Job.class");
        }
        if (!takesClaim && !parameter.isAssignableFrom(type)) {
            throw new ConfigurationException("@CoordTaskHandler(type = " + type.getName() + ") on " + where
                    + " does not fit its parameter " + parameter.getName());
        }
        return new TaskHandlerSpec(bean, method, annotation.queue(), annotation.concurrency(), type, takesClaim);
    }

    String where() {
        return method.getDeclaringClass().getName() + "." + method.getName();
    }
}
