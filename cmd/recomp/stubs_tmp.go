package main

type guardCmd struct{}
type cacheCmd struct{}
