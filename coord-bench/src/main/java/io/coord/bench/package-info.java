package io.coord.bench;
