package db

// Geospatial commands (GEOADD, GEOSEARCH, ...), sorted sets with
// geohash scores.
var GeoCommands = []Handler{}
