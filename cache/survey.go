package cache

import "io"

// Survey takes the inventory of the cache folders dirs with what the logs say the runs did
// with their entries (ReadLogUse, Take); with against, other caches' folders, it also says why
// dirs' entries are not theirs (Compare; nil without).
func Survey(dirs, logs, against []string, stdin io.Reader) (*Inventory, *Comparison, error) {
	use, err := ReadLogUse(logs, stdin)
	if err != nil {
		return nil, nil, err
	}
	inv, err := Take(osFolders(dirs), use)
	if err != nil || len(against) == 0 {
		return inv, nil, err
	}
	a, err := Take(osFolders(against), NewLogUse())
	if err != nil {
		return nil, nil, err
	}
	return inv, Compare(a, inv), nil
}

// osFolders are the folders at paths, each shown as given.
func osFolders(paths []string) []Folder {
	var folders []Folder
	for _, d := range paths {
		folders = append(folders, OSFolder(d))
	}
	return folders
}
