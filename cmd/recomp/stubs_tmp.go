package main

type diffCmd struct{}
type explainCmd struct{}
type guardCmd struct{}
type cacheCmd struct{}
