package main

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"sort"
	"strings"

	"golang.org/x/tools/go/packages"
)

// A feature is one line of the API record: one exported name, or one
// field or method of an exported type, with its type written out, as the
// Go project's api/*.txt files have them:
//
//	pkg github.com/actorq/actorq/actor, func New[T comparable](Config[T]) *Queue[T]
//	pkg github.com/actorq/actorq/actor, method (*Queue[T]) Add(T)
//	pkg github.com/actorq/actorq/actor, type Config[T comparable] struct, Name string
//
// A feature documented as experimental ends in experimentalMark. Types of
// other packages are written with their import paths, so a line names
// everything it depends on; parameter names are left out, since renaming
// one changes no caller.
type feature = string

// experimentalMark ends the line of a feature whose doc comment, or the
// doc comment of its type or of its package, has a paragraph that begins
// with "Experimental:".
const experimentalMark = " // experimental"

// load returns the features of every package of the module in dir that a
// user can import: not main packages, and nothing under an internal
// directory. Test files are not read.
func load(dir string) ([]feature, error) {
	cfg := &packages.Config{
		Dir: dir,
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax |
			packages.NeedTypes | packages.NeedTypesInfo,
	}
	pkgs, err := packages.Load(cfg, "./...")
	if err != nil {
		return nil, err
	}
	var out []feature
	for _, p := range pkgs {
		if len(p.Errors) > 0 {
			return nil, fmt.Errorf("%s: %v", p.PkgPath, p.Errors[0])
		}
		if p.Name == "main" || isInternal(p.PkgPath) {
			continue
		}
		out = append(out, features(p)...)
	}
	sort.Strings(out)
	return out, nil
}

// isInternal reports whether path has an internal element, which only
// its own module can import.
func isInternal(path string) bool {
	for _, e := range strings.Split(path, "/") {
		if e == "internal" {
			return true
		}
	}
	return false
}

// features returns the features of one package.
func features(p *packages.Package) []feature {
	w := &writer{pkg: p.Types, docs: docsOf(p)}
	w.pkgExp = w.docs[p.Types] // the package's own doc, keyed by the package
	scope := p.Types.Scope()
	for _, name := range scope.Names() {
		if obj := scope.Lookup(name); obj.Exported() {
			w.object(obj)
		}
	}
	return w.out
}

// writer collects the features of one package.
type writer struct {
	pkg    *types.Package
	docs   map[any]bool // objects (and the package) documented as experimental
	pkgExp bool
	out    []feature
}

func (w *writer) qualifier(p *types.Package) string {
	if p == w.pkg {
		return ""
	}
	return p.Path()
}

func (w *writer) typ(t types.Type) string { return types.TypeString(t, w.qualifier) }

// emit adds the feature text, marked experimental if exp is.
func (w *writer) emit(exp bool, format string, args ...any) {
	line := "pkg " + w.pkg.Path() + ", " + fmt.Sprintf(format, args...)
	if exp || w.pkgExp {
		line += experimentalMark
	}
	w.out = append(w.out, line)
}

func (w *writer) object(obj types.Object) {
	exp := w.docs[obj]
	switch obj := obj.(type) {
	case *types.Const:
		w.emit(exp, "const %s %s = %s", obj.Name(), w.typ(obj.Type()), obj.Val().ExactString())
	case *types.Var:
		w.emit(exp, "var %s %s", obj.Name(), w.typ(obj.Type()))
	case *types.Func:
		sig := obj.Type().(*types.Signature)
		w.emit(exp, "func %s%s%s", obj.Name(), w.tparams(sig.TypeParams()), w.signature(sig))
	case *types.TypeName:
		w.typeName(obj, exp)
	}
}

func (w *writer) typeName(obj *types.TypeName, exp bool) {
	if obj.IsAlias() {
		var tps *types.TypeParamList
		if a, ok := obj.Type().(*types.Alias); ok {
			tps = a.TypeParams()
		}
		w.emit(exp, "type %s%s = %s", obj.Name(), w.tparams(tps), w.typ(types.Unalias(obj.Type())))
		return
	}
	named := obj.Type().(*types.Named)
	head := "type " + obj.Name() + w.tparams(named.TypeParams())
	switch u := named.Underlying().(type) {
	case *types.Struct:
		w.emit(exp, "%s struct", head)
		for i := range u.NumFields() {
			f := u.Field(i)
			if !f.Exported() {
				continue
			}
			if f.Embedded() {
				w.emit(exp || w.docs[f], "%s struct, embedded %s", head, w.typ(f.Type()))
			} else {
				w.emit(exp || w.docs[f], "%s struct, %s %s", head, f.Name(), w.typ(f.Type()))
			}
		}
	case *types.Interface:
		var names []string
		for i := range u.NumMethods() {
			m := u.Method(i)
			if m.Exported() {
				names = append(names, m.Name())
			} else {
				names = append(names, "unexported methods")
			}
		}
		sort.Strings(names)
		w.emit(exp, "%s interface { %s }", head, strings.Join(names, ", "))
		for i := range u.NumMethods() {
			if m := u.Method(i); m.Exported() {
				w.emit(exp || w.docs[m], "%s interface, %s%s", head, m.Name(), w.signature(m.Type().(*types.Signature)))
			}
		}
	default:
		w.emit(exp, "%s %s", head, w.typ(u))
	}
	for i := range named.NumMethods() {
		m := named.Method(i)
		if !m.Exported() {
			continue
		}
		sig := m.Type().(*types.Signature)
		recv := obj.Name() + w.tparamNames(named.TypeParams())
		if _, ptr := sig.Recv().Type().(*types.Pointer); ptr {
			recv = "*" + recv
		}
		w.emit(exp || w.docs[m], "method (%s) %s%s", recv, m.Name(), w.signature(sig))
	}
}

// signature writes sig's parameters and results without their names.
func (w *writer) signature(sig *types.Signature) string {
	s := "(" + w.tuple(sig.Params(), sig.Variadic()) + ")"
	switch r := sig.Results(); r.Len() {
	case 0:
	case 1:
		s += " " + w.typ(r.At(0).Type())
	default:
		s += " (" + w.tuple(r, false) + ")"
	}
	return s
}

func (w *writer) tuple(t *types.Tuple, variadic bool) string {
	parts := make([]string, t.Len())
	for i := range t.Len() {
		ty := t.At(i).Type()
		if variadic && i == t.Len()-1 {
			parts[i] = "..." + w.typ(ty.(*types.Slice).Elem())
		} else {
			parts[i] = w.typ(ty)
		}
	}
	return strings.Join(parts, ", ")
}

// tparams writes a type parameter list with its constraints, or nothing.
func (w *writer) tparams(l *types.TypeParamList) string {
	if l.Len() == 0 {
		return ""
	}
	parts := make([]string, l.Len())
	for i := range l.Len() {
		tp := l.At(i)
		parts[i] = tp.Obj().Name() + " " + w.typ(tp.Constraint())
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// tparamNames writes a receiver's type parameters, names only.
func (w *writer) tparamNames(l *types.TypeParamList) string {
	if l.Len() == 0 {
		return ""
	}
	parts := make([]string, l.Len())
	for i := range l.Len() {
		parts[i] = l.At(i).Obj().Name()
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// docsOf returns the objects of p documented as experimental, and p's
// types.Package itself if its package doc is.
func docsOf(p *packages.Package) map[any]bool {
	exp := map[any]bool{}
	mark := func(doc *ast.CommentGroup, ids ...*ast.Ident) {
		if !isExperimental(doc) {
			return
		}
		for _, id := range ids {
			if obj := p.TypesInfo.Defs[id]; obj != nil {
				exp[obj] = true
			}
		}
	}
	for _, f := range p.Syntax {
		if isExperimental(f.Doc) {
			exp[p.Types] = true
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				mark(d.Doc, d.Name)
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.ValueSpec:
						doc := s.Doc
						if doc == nil && len(d.Specs) == 1 {
							doc = d.Doc
						}
						mark(doc, s.Names...)
					case *ast.TypeSpec:
						doc := s.Doc
						if doc == nil && d.Tok == token.TYPE && len(d.Specs) == 1 {
							doc = d.Doc
						}
						mark(doc, s.Name)
						markMembers(s.Type, mark)
					}
				}
			}
		}
	}
	return exp
}

// markMembers marks the fields of a struct type, or the methods of an
// interface type, documented as experimental.
func markMembers(t ast.Expr, mark func(*ast.CommentGroup, ...*ast.Ident)) {
	var fields *ast.FieldList
	switch t := t.(type) {
	case *ast.StructType:
		fields = t.Fields
	case *ast.InterfaceType:
		fields = t.Methods
	default:
		return
	}
	for _, f := range fields.List {
		names := f.Names
		if len(names) == 0 { // embedded: the field is named by its type
			if id := embeddedName(f.Type); id != nil {
				names = []*ast.Ident{id}
			}
		}
		mark(f.Doc, names...)
		mark(f.Comment, names...)
	}
}

func embeddedName(t ast.Expr) *ast.Ident {
	switch t := t.(type) {
	case *ast.Ident:
		return t
	case *ast.StarExpr:
		return embeddedName(t.X)
	case *ast.SelectorExpr:
		return t.Sel
	case *ast.IndexExpr:
		return embeddedName(t.X)
	case *ast.IndexListExpr:
		return embeddedName(t.X)
	}
	return nil
}

// isExperimental reports whether a doc comment has a paragraph that
// begins with "Experimental:".
func isExperimental(doc *ast.CommentGroup) bool {
	if doc == nil {
		return false
	}
	for _, para := range strings.Split(doc.Text(), "\n\n") {
		if strings.HasPrefix(strings.TrimSpace(para), "Experimental:") {
			return true
		}
	}
	return false
}
