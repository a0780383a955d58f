package io.coord.cli;
