package main

import (
	"bufio"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/tools/go/packages"
)

const (
	module = "github.com/actorq/actorq"
	actor  = module + "/actor"
)

// name is a name the walk meets: id as the walk writes it (Type.Member,
// or pkg.Type.Member outside actor), and its kind.
type name struct{ id, kind string }

func (n name) funcOrType() bool { return n.kind == "func" || n.kind == "type" }

// count returns how many names steps hold, and how many of them are
// functions and types.
func count(steps [][]name) (all, funcs int) {
	for _, step := range steps {
		all += len(step)
		for _, n := range step {
			if n.funcOrType() {
				funcs++
			}
		}
	}
	return all, funcs
}

// measure runs the script with the repository at root, built with tags,
// and returns the names each step of the walk meets first; with claim,
// the Get claims the item from the lane (the script's WALKMODE=claim).
func measure(root, tags string, claim bool) ([][]name, error) {
	tmp, err := os.MkdirTemp("", "walk")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "script")
	build := exec.Command("go", "build", "-o", bin, "-cover", "-covermode=atomic", "-coverpkg="+actor+","+module+"/tools/walk/script")
	if tags != "" {
		build.Args = append(build.Args, "-tags="+tags)
	}
	build.Args = append(build.Args, "./walk/script")
	build.Dir = filepath.Join(root, "tools")
	if out, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("%v: %v\n%s", build.Args, err, out)
	}
	run := exec.Command(bin)
	run.Env = append(os.Environ(), "GOMAXPROCS=1", "WALKDIR="+tmp, "GOCOVERDIR="+tmp)
	if claim {
		run.Env = append(run.Env, "WALKMODE=claim")
	}
	if out, err := run.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("the script: %v\n%s", err, out)
	}
	var counts [4]map[string]int
	for i := range counts {
		txt := filepath.Join(tmp, fmt.Sprint(i)+".txt")
		conv := exec.Command("go", "tool", "covdata", "textfmt", "-i", filepath.Join(tmp, fmt.Sprint(i)), "-o", txt)
		if out, err := conv.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("%v: %v\n%s", conv.Args, err, out)
		}
		if counts[i], err = readProfile(txt); err != nil {
			return nil, err
		}
	}
	cfg := &packages.Config{
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo | packages.NeedImports | packages.NeedDeps,
		Dir:  root,
	}
	if tags != "" {
		cfg.BuildFlags = []string{"-tags=" + tags}
	}
	pkgs, err := packages.Load(cfg, "./actor")
	if err != nil {
		return nil, err
	}
	if packages.PrintErrors(pkgs) > 0 {
		return nil, fmt.Errorf("loading %s failed", actor)
	}
	w := &walker{pkg: pkgs[0], owners: fieldOwners(pkgs[0].Types)}
	seen := map[string]bool{}
	steps := make([][]name, 3)
	for i := range steps {
		for _, n := range w.names(ran(counts[i], counts[i+1])) {
			if !seen[n.id] {
				seen[n.id] = true
				steps[i] = append(steps[i], n)
			}
		}
	}
	return steps, nil
}

// block is a block of statements of a coverage profile.
type block struct{ sl, sc, el, ec int }

// readProfile reads a text coverage profile: the count of each block of
// actor's files, keyed by the profile's "file:sl.sc,el.ec".
func readProfile(path string) (map[string]int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m := map[string]int{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "mode:") {
			continue
		}
		var key string
		var stmts, count int
		if _, err := fmt.Sscanf(line, "%s %d %d", &key, &stmts, &count); err != nil {
			return nil, fmt.Errorf("%s: %q: %v", path, line, err)
		}
		m[key] += count
	}
	return m, sc.Err()
}

// ran returns the blocks of actor's own files (not its internal packages)
// that ran between the profiles before and after, by file name.
func ran(before, after map[string]int) map[string][]block {
	blocks := map[string][]block{}
	for key, n := range after {
		if n <= before[key] {
			continue
		}
		i := strings.LastIndex(key, ":")
		file := key[:i]
		if filepath.Dir(file) != actor {
			continue
		}
		var b block
		fmt.Sscanf(key[i+1:], "%d.%d,%d.%d", &b.sl, &b.sc, &b.el, &b.ec)
		blocks[filepath.Base(file)] = append(blocks[filepath.Base(file)], b)
	}
	return blocks
}

// walker collects the names that the blocks that ran use.
type walker struct {
	pkg    *packages.Package
	owners map[*types.Var]string // the struct type that declares each field
	blocks map[string][]block
	found  map[string]name
}

// names returns the names that blocks use, by the walk's rule, in the
// order of their ids.
func (w *walker) names(blocks map[string][]block) []name {
	w.blocks, w.found = blocks, map[string]name{}
	for _, file := range w.pkg.Syntax {
		ast.Inspect(file, w.visit)
	}
	ids := make([]string, 0, len(w.found))
	for id := range w.found {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	list := make([]name, len(ids))
	for i, id := range ids {
		list[i] = w.found[id]
	}
	return list
}

// in reports whether pos is in a block that ran.
func (w *walker) in(pos token.Pos) bool {
	p := w.pkg.Fset.Position(pos)
	for _, b := range w.blocks[filepath.Base(p.Filename)] {
		after := p.Line > b.sl || p.Line == b.sl && p.Column >= b.sc
		before := p.Line < b.el || p.Line == b.el && p.Column < b.ec
		if after && before {
			return true
		}
	}
	return false
}

func (w *walker) visit(n ast.Node) bool {
	switch x := n.(type) {
	case *ast.Ident:
		if w.in(x.Pos()) {
			w.use(x)
		}
	case *ast.FuncDecl: // a function that ran: its name and signature
		if x.Body == nil || len(x.Body.List) == 0 || !w.in(x.Body.List[0].Pos()) {
			return true
		}
		w.useAll(x.Type)
		if x.Recv != nil {
			w.useAll(x.Recv)
		}
		w.add(w.pkg.TypesInfo.Defs[x.Name])
	case *ast.SwitchStmt, *ast.TypeSwitchStmt: // the cases evaluated
		if !w.in(x.Pos()) {
			return true
		}
		var body *ast.BlockStmt
		if s, ok := x.(*ast.SwitchStmt); ok {
			body = s.Body
		} else {
			body = x.(*ast.TypeSwitchStmt).Body
		}
		for _, st := range body.List {
			cc := st.(*ast.CaseClause)
			for _, e := range cc.List {
				w.useAll(e)
			}
			if len(cc.Body) > 0 && w.in(cc.Body[0].Pos()) {
				break
			}
		}
	case *ast.SelectStmt: // every case of a select reached
		if !w.in(x.Pos()) {
			return true
		}
		for _, st := range x.Body.List {
			if cc := st.(*ast.CommClause); cc.Comm != nil {
				w.useAll(cc.Comm)
			}
		}
	}
	return true
}

// useAll adds every name that the identifiers under n use.
func (w *walker) useAll(n ast.Node) {
	ast.Inspect(n, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			w.use(id)
		}
		return true
	})
}

func (w *walker) use(id *ast.Ident) { w.add(w.pkg.TypesInfo.Uses[id]) }

// add adds obj if it is a name of the module the walk counts.
func (w *walker) add(obj types.Object) {
	if obj == nil || obj.Pkg() == nil || !strings.HasPrefix(obj.Pkg().Path(), module) {
		return
	}
	var kind, owner string
	switch o := obj.(type) {
	case *types.Func:
		obj, kind = o.Origin(), "func"
		if recv := o.Signature().Recv(); recv != nil {
			owner = typeName(recv.Type())
		}
	case *types.TypeName:
		if _, ok := o.Type().(*types.TypeParam); ok {
			return
		}
		kind = "type"
	case *types.Var:
		switch {
		case o.IsField():
			kind, owner = "field", w.owners[o.Origin()]
		case o.Parent() == o.Pkg().Scope():
			kind = "var"
		default:
			return // a local variable or a parameter
		}
	case *types.Const:
		if o.Parent() != o.Pkg().Scope() {
			return
		}
		kind = "const"
	default:
		return
	}
	id := obj.Name()
	if owner != "" {
		id = owner + "." + id
	}
	if obj.Pkg().Path() != actor {
		id = obj.Pkg().Name() + "." + id
	}
	w.found[id] = name{id, kind}
}

// typeName returns the name of t, a receiver's type, without its pointer
// or type arguments.
func typeName(t types.Type) string {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	if n, ok := t.(*types.Named); ok {
		return n.Obj().Name()
	}
	return t.String()
}

// fieldOwners returns the struct type that declares each field of the
// packages p reaches.
func fieldOwners(p *types.Package) map[*types.Var]string {
	owners := map[*types.Var]string{}
	seen := map[*types.Package]bool{}
	var visit func(p *types.Package)
	visit = func(p *types.Package) {
		if seen[p] {
			return
		}
		seen[p] = true
		for _, n := range p.Scope().Names() {
			if tn, ok := p.Scope().Lookup(n).(*types.TypeName); ok {
				if st, ok := tn.Type().Underlying().(*types.Struct); ok {
					for i := range st.NumFields() {
						owners[st.Field(i)] = tn.Name()
					}
				}
			}
		}
		for _, i := range p.Imports() {
			visit(i)
		}
	}
	visit(p)
	return owners
}
